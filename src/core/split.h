/*
 * split.h — a streamed stage's row blocks split over processes
 * (docs/cluster.md). Block b (0-based, in row order) belongs to process
 * b % size. Every process but 0 computes its blocks and sends each one's
 * parts to process 0 (send, in its block order); process 0 computes its own,
 * takes the others in block order (recv) and alone reduces and writes them,
 * exactly as the single process does, so the outputs are the same bytes.
 * A block that failed travels as its status and message: recv returns it as
 * process 0's own error (the single-process run's message), and the sender
 * still sends a header for each later block, so no process waits forever.
 * agree: after the setup, every process learns whether any process failed.
 * No MPI here: the tools' MPI builds fill it in (tools/mpi_split.c).
 */
#ifndef TRV_SPLIT_H
#define TRV_SPLIT_H

#include "trv.h"

#include <stddef.h>

typedef struct trv_part {
    void *p;
    size_t bytes;
} trv_part;

typedef struct trv_split trv_split;
struct trv_split {
    int rank, size;
    /* From process rank to 0: block's status (and message) and, if TRV_OK, its n parts. */
    trv_status (*send)(trv_ctx *ctx, const trv_split *s, int block, trv_status st, const trv_part *parts, int n);
    /* On process 0: block's parts from process block % size, or its error. */
    trv_status (*recv)(trv_ctx *ctx, const trv_split *s, int block, trv_part *parts, int n);
    /* Collective: st if not TRV_OK, else an error when another process failed. */
    trv_status (*agree)(trv_ctx *ctx, const trv_split *s, trv_status st);
};

/* A streamed stage's block: compute reads and computes rows y0 .. y1 - 1
 * into the stage's buffers (and the block's own integer tallies); parts
 * names those buffers (at most TRV_SPLIT_PARTS, the same places on every
 * process); write folds them into the running figures, in block order, and
 * writes the rows (process 0 only). */
#define TRV_SPLIT_PARTS 8
typedef struct trv_block_ops {
    void *s;
    trv_status (*compute)(trv_ctx *ctx, void *s, int y0, int y1);
    int (*parts)(void *s, int y0, int y1, trv_part *p);
    trv_status (*write)(trv_ctx *ctx, void *s, int y0, int y1);
    const char *label; /* trv_progress's, after each block written */
} trv_block_ops;

/* Rows 0 .. ny - 1 by blocks of `rows`. sp NULL: one process, compute and
 * write block after block until the first error (setup not TRV_OK: nothing
 * runs). Else setup is agreed first; block k is computed on process
 * k % size and sent to 0; process 0 writes every block in order, and after
 * its first error still takes (and drops) the blocks the others send. */
trv_status trv_split_blocks(trv_ctx *ctx, const trv_split *sp, trv_status setup, int ny, int rows,
                            const trv_block_ops *ops);

#endif
