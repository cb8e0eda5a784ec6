/* core/split.h over MPI (mpi_split.h). Per block, one header message
 * {status, message length}, then the message or the parts, tag = block. */
#include "mpi_split.h"

#include <limits.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

static trv_status send_block(trv_ctx *ctx, const trv_split *s, int block, trv_status st, const trv_part *p, int n)
{
    (void)s;
    for (int k = 0; k < n && !st; k++)
        if (p[k].bytes > INT_MAX)
            st = trv_error(ctx, TRV_ERR_NOMEM, "a block of %zu bytes is more than one MPI message holds: lower TRV_BLOCK_ROWS",
                           p[k].bytes);
    const char *msg = st ? trv_errmsg(ctx) : "";
    int head[2] = {(int)st, (int)strlen(msg)};
    MPI_Send(head, 2, MPI_INT, 0, block, MPI_COMM_WORLD);
    if (st) {
        MPI_Send(msg, head[1], MPI_CHAR, 0, block, MPI_COMM_WORLD);
        return st;
    }
    for (int k = 0; k < n; k++)
        MPI_Send(p[k].p, (int)p[k].bytes, MPI_BYTE, 0, block, MPI_COMM_WORLD);
    return TRV_OK;
}

static trv_status recv_block(trv_ctx *ctx, const trv_split *s, int block, trv_part *p, int n)
{
    int from = block % s->size, head[2];
    MPI_Recv(head, 2, MPI_INT, from, block, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (head[0]) {
        char *msg = malloc((size_t)head[1] + 1);
        if (!msg)
            return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        MPI_Recv(msg, head[1], MPI_CHAR, from, block, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        msg[head[1]] = '\0';
        trv_status st = trv_error(ctx, (trv_status)head[0], "%s", msg);
        free(msg);
        return st;
    }
    for (int k = 0; k < n; k++)
        MPI_Recv(p[k].p, (int)p[k].bytes, MPI_BYTE, from, block, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return TRV_OK;
}

static trv_status agree(trv_ctx *ctx, const trv_split *s, trv_status st)
{
    int mine = (int)st, worst = 0;
    MPI_Allreduce(&mine, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (st || !worst)
        return st;
    return trv_error(ctx, (trv_status)worst, "another MPI rank than %d failed to start", s->rank);
}

void mpi_split_start(int *argc, char ***argv, trv_split *s)
{
    MPI_Init(argc, argv);
    memset(s, 0, sizeof *s);
    MPI_Comm_rank(MPI_COMM_WORLD, &s->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &s->size);
    s->send = send_block;
    s->recv = recv_block;
    s->agree = agree;
}

int mpi_split_end(int code)
{
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return code;
}
