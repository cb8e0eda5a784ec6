/* The block loop of the streamed stages, on one process or split over
 * several (split.h). */
#include "split.h"

/* Block k (rows y0 .. y1 - 1) as process sp->rank sees it; *st its first error. */
static void split_block(trv_ctx *ctx, const trv_split *sp, const trv_block_ops *o, int k, int y0, int y1, int ny,
                        trv_status *st)
{
    const int rank = sp ? sp->rank : 0, owner = sp ? k % sp->size : 0;
    trv_part p[TRV_SPLIT_PARTS];
    if (rank != 0 && owner == rank) {
        trv_status b_st = *st ? *st : o->compute(ctx, o->s, y0, y1);
        *st = *st ? *st : b_st;
        trv_status s_st = sp->send(ctx, sp, k, b_st, p, o->parts(o->s, y0, y1, p));
        *st = *st ? *st : s_st;
    } else if (rank == 0 && owner != 0) {
        trv_status r_st = sp->recv(ctx, sp, k, p, o->parts(o->s, y0, y1, p));
        if (!*st && !(*st = r_st) && !(*st = o->write(ctx, o->s, y0, y1)))
            *st = trv_progress(ctx, (double)y1 / ny, o->label);
    } else if (rank == 0 && !*st && !(*st = o->compute(ctx, o->s, y0, y1)) && !(*st = o->write(ctx, o->s, y0, y1)))
        *st = trv_progress(ctx, (double)y1 / ny, o->label);
}

trv_status trv_split_blocks(trv_ctx *ctx, const trv_split *sp, trv_status setup, int ny, int rows,
                            const trv_block_ops *ops)
{
    trv_status st = sp ? sp->agree(ctx, sp, setup) : setup;
    if (st)
        return st;
    for (int k = 0, y0 = 0; y0 < ny && (sp || !st); k++, y0 += rows)
        split_block(ctx, sp, ops, k, y0, y0 + rows < ny ? y0 + rows : ny, ny, &st);
    return st;
}
