/* Start and goal joined on the raster under the zones, and the nogo zones
 * that cut them apart (zones.h: prm_zones_joined, prm_zones_cutting): a
 * flood over GO cells the burn leaves open, from both ends in turn. */
#include "zones.h"

#include "prm_priv.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int open_cell(const prm_terrain *t, const unsigned char *codes, const geo_zones *burn, long i)
{
    long nx = t->grid->nx;
    return prm_code_at(codes, (size_t)i) != PRM_CL_NOGO && !(burn && (geo_zones_cell(burn, i % nx, i / nx) & GEO_ZB_NOGO));
}

/* One cell of side k (1 or 2) expanded: its open 4-neighbours marked k
 * and queued; 1 when one of them carries the other side's mark. */
static int expand(const prm_terrain *t, const unsigned char *codes, const geo_zones *burn, unsigned char *mark,
                  int32_t *q, long *tail, long i, unsigned char k)
{
    long nx = t->grid->nx, ny = t->grid->ny, c = i % nx, r = i / nx;
    const long next[4] = {c > 0 ? i - 1 : -1, c + 1 < nx ? i + 1 : -1, r > 0 ? i - nx : -1, r + 1 < ny ? i + nx : -1};
    for (int j = 0; j < 4; j++) {
        long m = next[j];
        if (m < 0 || mark[m] == k || !open_cell(t, codes, burn, m))
            continue;
        if (mark[m])
            return 1;
        mark[m] = k;
        q[(*tail)++] = (int32_t)m;
    }
    return 0;
}

trv_status prm_zones_joined(trv_ctx *ctx, const prm_terrain *t, const unsigned char *codes, const geo_zones *burn,
                            const double xy[4], int *joined)
{
    *joined = 0;
    long s = prm_cell_at(t, xy[0], xy[1]), g = prm_cell_at(t, xy[2], xy[3]);
    if (s < 0 || g < 0 || !open_cell(t, codes, burn, s) || !open_cell(t, codes, burn, g))
        return TRV_OK;
    if (s == g) {
        *joined = 1;
        return TRV_OK;
    }
    size_t n = (size_t)t->grid->nx * t->grid->ny;
    if (n > INT32_MAX)
        return trv_error(ctx, TRV_ERR_DATA, "the grid is too large for the connectivity flood");
    unsigned char *mark = calloc(n, 1);
    int32_t *q[2] = {malloc(n * sizeof(int32_t)), malloc(n * sizeof(int32_t))};
    if (!mark || !q[0] || !q[1]) {
        free(mark), free(q[0]), free(q[1]);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    long head[2] = {0, 0}, tail[2] = {1, 1};
    q[0][0] = (int32_t)s, q[1][0] = (int32_t)g;
    mark[s] = 1, mark[g] = 2;
    /* one cell of each side in turn: the work is at most twice the
     * smaller side's region, and it stops where the two floods meet */
    while (!*joined && head[0] < tail[0] && head[1] < tail[1])
        for (int k = 0; k < 2 && !*joined; k++)
            *joined = expand(t, codes, burn, mark, q[k], &tail[k], q[k][head[k]++], (unsigned char)(k + 1));
    free(mark), free(q[0]), free(q[1]);
    return TRV_OK;
}

/* Start and goal joined under z without zone k (its burn tiled as
 * trv-route's, prm_zones_tiles: bounded whatever the grid). */
static trv_status joined_without(trv_ctx *ctx, const prm_terrain *t, const unsigned char *codes, const geo_zones *z,
                                 int k, const double xy[4], int *joined)
{
    geo_zones zk = *z;
    zk.burn = NULL, zk.cell = NULL, zk.block = NULL, zk.tiles = NULL, zk.tiles_free = NULL;
    zk.n = z->n - 1;
    if (!(zk.z = malloc((size_t)z->n * sizeof *zk.z)))
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    memcpy(zk.z, z->z, (size_t)k * sizeof *zk.z);
    memcpy(zk.z + k, z->z + k + 1, (size_t)(z->n - k - 1) * sizeof *zk.z);
    trv_status st = prm_zones_tiles(ctx, &zk, t->grid, PRM_ZONE_TILES);
    if (!st)
        st = prm_zones_joined(ctx, t, codes, &zk, xy, joined);
    if (zk.tiles_free)
        zk.tiles_free(zk.tiles);
    free(zk.z);
    return st;
}

trv_status prm_zones_cutting(trv_ctx *ctx, const prm_terrain *t, const double xy[4], int max, int *cut, int *ncut,
                             int *nogo, int *result)
{
    const geo_zones *z = t->zones;
    *ncut = *nogo = 0;
    *result = PRM_CUT_NONE;
    unsigned char *codes = prm_class_codes(t);
    if (!codes)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    for (int k = 0; k < z->n; k++)
        *nogo += z->z[k].effect == GEO_ZONE_NOGO;
    int joined;
    trv_status st = prm_zones_joined(ctx, t, codes, NULL, xy, &joined);
    if (st || !joined) /* not joined without the zones either: not theirs to explain */
        goto done;
    if ((st = prm_zones_joined(ctx, t, codes, z, xy, &joined)) || joined) {
        *result = PRM_CUT_JOINED;
        goto done;
    }
    *result = PRM_CUT_ZONES;
    for (int k = 0, tried = 0; k < z->n && tried < max && !st; k++) {
        if (z->z[k].effect != GEO_ZONE_NOGO)
            continue;
        tried++;
        int j = 1; /* the only nogo zone: without it, as without the zones */
        if (*nogo > 1)
            st = joined_without(ctx, t, codes, z, k, xy, &j);
        if (!st && j)
            cut[(*ncut)++] = k;
    }
done:
    free(codes);
    return st;
}
