/*
 * rowtext.h — a text file in row order from a stage that runs by tiles.
 *
 * A point cloud has a line per cell, rows top to bottom, columns left to
 * right; the stages that make one (trv-terrain and trv-krige --points)
 * compute it by tiles (geo_tiling: ntx tiles across, th rows each, row of
 * tiles after row of tiles). Each tile's rows go to a scratch file in
 * $TMPDIR (else /tmp; unlinked when made, so nothing is left), the byte
 * offset where each row starts kept; after the last tile of a row of
 * tiles, its rows are copied out in row order, each row's tiles' pieces in
 * column order, and the scratch file is reused from its start. Memory:
 * (th + 1) offsets a tile across and a 64 KiB copy buffer, whatever the
 * width; disk: one row of tiles' lines. With one tile across the lines go
 * straight to the output (no scratch file).
 */
#ifndef TRV_ROWTEXT_H
#define TRV_ROWTEXT_H

#include <stdio.h>

#include "trv.h"

typedef struct trv_rowtext trv_rowtext;

/* Lines for out (named path in messages) from ntx tiles across of th rows.
 * TRV_ERR_IO when no scratch file can be made (its folder named). */
trv_status trv_rowtext_open(trv_ctx *ctx, FILE *out, const char *path, int ntx, int th, trv_rowtext **rt);
/* The file that takes row r (0 <= r < th) of tile tx of the row of tiles
 * being made: the caller writes that row's lines into it, rows of a tile
 * in order, tiles tx = 0 .. ntx - 1 in order. */
FILE *trv_rowtext_row(trv_rowtext *rt, int tx, int r);
/* Tile tx ends after rows rows; after the last tile across (tx ntx - 1)
 * the row of tiles is copied out. TRV_ERR_IO on a scratch file's error. */
trv_status trv_rowtext_tile_end(trv_ctx *ctx, trv_rowtext *rt, int tx, int rows);
/* The scratch file closed and rt freed (out stays the caller's). */
void trv_rowtext_close(trv_rowtext *rt);

#endif
