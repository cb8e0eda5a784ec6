/* The improved VFH* of Wu, Dai & Yang (Appl. Sci. 10(3):1135, 2020):
 * dynamic thresholds, candidate sieving and the path-tree cost with
 * lambda1..5 (equations in local_planner.h; docs/method.md §5.12). */
#include "local_planner.h"

#include <math.h>

#define DELTA_P 1.6
#define T_LOW 1.2
#define T_HIGH 2.0
#define GAMMA 0.5

void sim_wu_thresholds(const double *h, int n, double d_rt, double *t1, double *t2)
{
    double mean = 0;
    for (int k = 0; k < n; k++)
        mean += h[k];
    mean /= n;
    *t1 = mean <= DELTA_P ? T_LOW : T_HIGH;
    *t2 = fmax(*t1, GAMMA * d_rt * d_rt);
}

static int sectors(int n, double deg) { return (int)lround(deg / (360.0 / n)); }

/* k inside [s, s + len) (circular)? */
static int inside(int n, int s, int len, int k) { return ((k - s) % n + n) % n < len; }

int sim_wu_candidates(const unsigned char *mask, int n, int kt, int *cand, int cap)
{
    int vs[SIM_POLAR_MAX], vl[SIM_POLAR_MAX];
    int nv = sim_polar_valleys(mask, n, vs, vl, SIM_POLAR_MAX), nc = 0;
    int s10 = sectors(n, 10), s15 = sectors(n, 15), s20 = sectors(n, 20), s80 = sectors(n, 80);
    for (int i = 0; i < nv && nc + 3 <= cap; i++) {
        int s = vs[i], l = vl[i], mid = (s + (l - 1) / 2) % n;
        if (l == n) { /* passable all round */
            cand[nc++] = kt;
            cand[nc++] = (kt + s20) % n;
            cand[nc++] = (kt - s20 + n) % n;
        } else if (l > s80) {
            cand[nc++] = (s + s15) % n;
            cand[nc++] = (s + l - 1 - s15) % n;
            if (inside(n, s + s15 + 1, l - 2 * s15 - 2, kt))
                cand[nc++] = kt;
        } else if (l > s20) {
            cand[nc++] = mid;
            if (inside(n, s + s10, l - 2 * s10, kt) && kt != mid)
                cand[nc++] = kt;
        } else if (l >= s10) {
            cand[nc++] = mid;
        }
    }
    return nc;
}

double sim_wu_cost_first(const double l[5], int n, int c, int dt, int dprev)
{
    return l[0] * sim_polar_delta(n, c, dt) + l[1] * sim_polar_delta(n, c, dprev);
}

double sim_wu_cost_next(const double l[5], int n, double g_prev, int c, int dt, int dprev)
{
    return l[2] * g_prev + l[3] * sim_polar_delta(n, c, dt) + l[4] * sim_polar_delta(n, c, dprev);
}

int sim_wu_lambda_check(const double l[5])
{
    for (int i = 0; i < 5; i++)
        if (!(l[i] > 0))
            return 5;
    if (!(l[0] > l[1]))
        return 1;
    if (!(l[3] > l[4]))
        return 2;
    if (!(l[2] * l[0] < l[3]))
        return 3;
    if (!(l[2] * l[1] < l[4]))
        return 4;
    return 0;
}

/* The cheapest cost of a branch from (x, y, heading theta) at depth i
 * with cost g so far and previous direction dprev down to depth n_g
 * (INFINITY: none reaches it); *first the candidate taken at depth 0. */
static double branch(const sim_vfh_cfg *c, const sim_vfh_query *q, double x, double y, double theta, int i, double g,
                     int dprev, unsigned char *bin, int *first)
{
    if (i >= c->depth)
        return g;
    int n = c->polar.n;
    double h[SIM_POLAR_MAX], t1, t2;
    unsigned char fresh[SIM_POLAR_MAX] = {0}, mask[SIM_POLAR_MAX];
    unsigned char *b = i == 0 ? bin : fresh;
    sim_polar_primary(&c->polar, x, y, q->pts, q->npts, h);
    sim_wu_thresholds(h, n, fmin(hypot(q->tx - x, q->ty - y), c->polar.R), &t1, &t2);
    sim_polar_binary(h, n, t1, t2, b);
    sim_polar_masked(&c->polar, b, x, y, theta, q->r_turn, q->pts, q->npts, mask);
    int dt = sim_polar_sector(n, atan2(q->ty - y, q->tx - x));
    int cand[3 * SIM_POLAR_MAX];
    int nc = sim_wu_candidates(mask, n, dt, cand, 3 * SIM_POLAR_MAX);
    double best = INFINITY;
    for (int j = 0; j < nc; j++) {
        double a = cand[j] * 2 * M_PI / n;
        double gj = i == 0 ? sim_wu_cost_first(c->wu_lambda, n, cand[j], dt, dprev)
                           : sim_wu_cost_next(c->wu_lambda, n, g, cand[j], dt, dprev);
        int f;
        double tot = branch(c, q, x + c->step_m * cos(a), y + c->step_m * sin(a), a, i + 1, gj, cand[j], bin, &f);
        if (tot < best) {
            best = tot;
            if (i == 0)
                *first = cand[j];
        }
    }
    return best;
}

int sim_vfh_star_wu2020(const sim_vfh_cfg *c, const sim_vfh_query *q, unsigned char *bin, double *dir)
{
    int n = c->polar.n, first = -1;
    double g = branch(c, q, q->x, q->y, q->theta, 0, 0, sim_polar_sector(n, q->prev), bin, &first);
    if (!isfinite(g) || first < 0)
        return -1;
    *dir = first * 2 * M_PI / n;
    return 0;
}
