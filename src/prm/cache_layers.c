/* The roadmap cache's layers (prm_priv.h: prm_cache_layer_*): the arrays
 * of a terrain read whole, stored as they are in memory, so that trv-route
 * maps the file and uses them in place: no GeoTIFF decoded, no copy, and
 * only the pages a query touches read. */
#include "prm_priv.h"

#include <stdlib.h>
#include <string.h>

size_t prm_cache_layer_cell(int k)
{
    static const size_t cell[PRM_LY_N] = {1, 1, 4, 4, 4, 4, 2 * sizeof(float), sizeof(uint16_t)};
    return cell[k];
}

static size_t aligned(size_t n)
{
    return (n + PRM_CACHE_ALIGN - 1) / PRM_CACHE_ALIGN * PRM_CACHE_ALIGN;
}

size_t prm_cache_layer_offset(int nx, int ny, int k)
{
    size_t at = 0;
    for (int j = 0; j < k; j++)
        at += aligned((size_t)nx * (size_t)ny * prm_cache_layer_cell(j));
    return at;
}

size_t prm_cache_layers_bytes(int nx, int ny, int nlayers)
{
    return prm_cache_layer_offset(nx, ny, nlayers);
}

size_t prm_cache_layers_pad(size_t at)
{
    return aligned(at) - at;
}

/* Layer k of t (read whole). */
static const void *layer_of(const prm_terrain *t, int k)
{
    switch (k) {
    case PRM_LY_CLASS: return t->cls->u8;
    case PRM_LY_GONOGO: return t->gonogo->u8;
    case PRM_LY_COST: return t->cost->f32;
    case PRM_LY_DEM: return t->dem->f32;
    case PRM_LY_SLOPE: return t->slope->f32;
    case PRM_LY_SPEED: return t->speed->f32;
    case PRM_LY_GRAD: return t->aniso->grad;
    default: return t->aniso->pair;
    }
}

trv_status prm_cache_layers_write(trv_ctx *ctx, FILE *fp, size_t at, const prm_terrain *t, const char *path,
                                  int layers)
{
    if (t->ready && layers)
        return trv_error(ctx, TRV_ERR_INTERNAL, "the roadmap cache's layers of a lazy terrain");
    int nx = t->grid->nx, ny = t->grid->ny, nl = !layers ? 0 : t->aniso ? PRM_LY_N : PRM_LY_GRAD;
    uint32_t head[4] = {(uint32_t)nx, (uint32_t)ny, (uint32_t)nl, 0};
    static const unsigned char zeros[PRM_CACHE_ALIGN];
    int bad = fwrite(head, sizeof head, 1, fp) != 1;
    size_t pad = prm_cache_layers_pad(at + sizeof head);
    bad |= pad && fwrite(zeros, 1, pad, fp) != pad;
    for (int k = 0; k < nl && !bad; k++) {
        size_t n = (size_t)nx * ny * prm_cache_layer_cell(k);
        bad = fwrite(layer_of(t, k), 1, n, fp) != n;
        pad = prm_cache_layers_pad(n);
        bad |= pad && fwrite(zeros, 1, pad, fp) != pad;
    }
    return bad ? trv_error(ctx, TRV_ERR_IO, "cannot write '%s'", path) : TRV_OK;
}

const void *prm_cache_layer(const prm_terrain_facts *f, int k)
{
    return f->layers + prm_cache_layer_offset(f->layers_nx, f->layers_ny, k);
}
