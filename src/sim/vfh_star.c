/* VFH* (Ulrich & Borenstein, ICRA 2000): VFH+ candidates verified by a
 * look-ahead tree of projected positions, searched with A* (cost and
 * heuristic in local_planner.h; docs/method.md §5.12). */
#include "local_planner.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NODES 4096

typedef struct node {
    double x, y, theta, g, f;
    int depth, first, prev; /* first: the root's candidate it descends from; prev: c_{i-1} (sector) */
    int open;
} node;

/* The masked histogram of a projected node: no history (blocked where
 * h > t_high). */
static void node_mask(const sim_vfh_cfg *c, const sim_vfh_query *q, const node *nd, unsigned char *bin,
                      unsigned char *mask)
{
    double h[SIM_POLAR_MAX];
    sim_polar_primary(&c->polar, nd->x, nd->y, q->pts, q->npts, h);
    sim_polar_binary(h, c->polar.n, c->t_low, c->t_high, bin);
    sim_polar_masked(&c->polar, bin, nd->x, nd->y, nd->theta, q->r_turn, q->pts, q->npts, mask);
}

static double heuristic(const sim_vfh_cfg *c, const sim_vfh_query *q, const node *nd)
{
    int n = c->polar.n;
    int kt = sim_polar_sector(n, atan2(q->ty - nd->y, q->tx - nd->x));
    double mu = fmin(c->mu[0], c->mu[1] + c->mu[2]);
    return pow(c->lambda_d, nd->depth) * mu * sim_polar_delta(n, kt, sim_polar_sector(n, nd->theta));
}

/* Children of node i appended to the tree; returns the new count. */
static int expand(const sim_vfh_cfg *c, const sim_vfh_query *q, node *t, int nn, int i, unsigned char *root_bin)
{
    int n = c->polar.n;
    node nd = t[i];
    unsigned char fresh[SIM_POLAR_MAX] = {0}, mask[SIM_POLAR_MAX];
    node_mask(c, q, &nd, nd.depth == 0 ? root_bin : fresh, mask);
    int kt = sim_polar_sector(n, atan2(q->ty - nd.y, q->tx - nd.x));
    int kth = sim_polar_sector(n, nd.theta);
    int cand[2 * SIM_POLAR_MAX];
    int nc = sim_vfh_candidates(mask, n, kt, c->s_max, cand, 2 * SIM_POLAR_MAX);
    double w = pow(c->lambda_d, nd.depth);
    for (int j = 0; j < nc && nn < MAX_NODES; j++) {
        double a = cand[j] * 2 * M_PI / n;
        node ch = {nd.x + c->step_m * cos(a), nd.y + c->step_m * sin(a), a, 0, 0, nd.depth + 1,
                   nd.depth == 0 ? cand[j] : nd.first, cand[j], 1};
        ch.g = nd.g + w * sim_vfh_cost(n, cand[j], kt, kth, nd.prev, c->mu);
        ch.f = ch.g + heuristic(c, q, &ch);
        t[nn++] = ch;
    }
    return nn;
}

int sim_vfh_star(const sim_vfh_cfg *c, const sim_vfh_query *q, unsigned char *bin, double *dir)
{
    node *t = malloc(MAX_NODES * sizeof *t);
    if (!t)
        return -1; /* out of memory: as a dead end (the vehicle stops and re-plans) */
    int n = c->polar.n, ret = -1;
    t[0] = (node){q->x, q->y, q->theta, 0, 0, 0, -1, sim_polar_sector(n, q->prev), 1};
    int nn = 1;
    for (;;) {
        int best = -1;
        for (int i = 0; i < nn; i++)
            if (t[i].open && (best < 0 || t[i].f < t[best].f))
                best = i;
        if (best < 0)
            break; /* every branch ended before depth n_g */
        if (t[best].depth >= c->depth) {
            *dir = t[best].first * 2 * M_PI / n;
            ret = 0;
            break;
        }
        t[best].open = 0;
        nn = expand(c, q, t, nn, best, bin);
    }
    free(t);
    return ret;
}
