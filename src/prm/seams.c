/* dem's seams by pieces (prm.h prm_seams_pieces): the roadmap cache keeps
 * a hash per piece, so that a query checks, and so reads, the seams of the
 * tiles it reads alone (at 1 m the seams are 63 MB, two thirds of the
 * cache; a query reads a few hundred of the 15 616 tiles).
 *
 * Lines (prm_seams_count's layout): L_r = 2 (tiles down - 1) lines of nx
 * cells (the two rows either side of each boundary between tile rows),
 * then L_c = 2 (tiles across - 1) lines of ny cells (the two columns of
 * each boundary between tile columns). Row line l's piece j (j = 0 ..
 * tiles across - 1) is its cells j PRM_TILE .. min(nx, (j + 1) PRM_TILE)
 * - 1, piece number l (tiles across) + j; column line l's piece j (j = 0
 * .. tiles down - 1) is its cells j PRM_TILE .. min(ny, (j + 1) PRM_TILE)
 * - 1, piece number L_r (tiles across) + l (tiles down) + j. */
#include "prm.h"

#include <string.h>

uint64_t prm_hash_bytes(uint64_t h, const void *p_, size_t n)
{
    const unsigned char *p = p_;
    size_t k = 0;
    for (; k + 8 <= n; k += 8) {
        uint64_t w;
        memcpy(&w, p + k, 8);
        h = (h ^ w) * 0x100000001b3ULL;
    }
    for (; k < n; k++)
        h = (h ^ p[k]) * 0x100000001b3ULL;
    return h;
}

typedef struct lines {
    size_t ntx, nty, nx, ny, rows; /* tiles across and down, the grid, L_r */
} lines;

static lines lines_of(int nx, int ny)
{
    lines L = {((size_t)nx + PRM_TILE - 1) / PRM_TILE, ((size_t)ny + PRM_TILE - 1) / PRM_TILE, (size_t)nx,
               (size_t)ny, 0};
    L.rows = 2 * (L.nty - 1);
    return L;
}

size_t prm_seams_pieces(int nx, int ny)
{
    lines L = lines_of(nx, ny);
    return L.rows * L.ntx + 2 * (L.ntx - 1) * L.nty;
}

/* Piece k's first cell in the seams and its length. */
static size_t piece(const lines *L, size_t k, size_t *len)
{
    size_t line, j, n, at;
    if (k < L->rows * L->ntx) {
        line = k / L->ntx, j = k % L->ntx, n = L->nx;
        at = line * L->nx;
    } else {
        k -= L->rows * L->ntx;
        line = k / L->nty, j = k % L->nty, n = L->ny;
        at = L->rows * L->nx + line * L->ny;
    }
    size_t a = j * PRM_TILE, b = a + PRM_TILE < n ? a + PRM_TILE : n;
    *len = b - a;
    return at + a;
}

void prm_seams_hash(const float *seams, int nx, int ny, uint64_t *hash)
{
    lines L = lines_of(nx, ny);
    size_t np = prm_seams_pieces(nx, ny), len;
    for (size_t k = 0; k < np; k++) {
        size_t at = piece(&L, k, &len);
        hash[k] = prm_hash_bytes(PRM_FNV_SEED, seams + at, len * sizeof *seams);
    }
}

static int piece_bad(const lines *L, const float *seams, const uint64_t *hash, size_t k)
{
    size_t len, at = piece(L, k, &len);
    uint64_t h;
    memcpy(&h, hash + k, sizeof h);
    return prm_hash_bytes(PRM_FNV_SEED, seams + at, len * sizeof *seams) != h;
}

int prm_seams_check(const float *seams, const uint64_t *hash, int nx, int ny, int tx, int ty)
{
    lines L = lines_of(nx, ny);
    size_t ja = tx > 0 ? (size_t)tx - 1 : 0, jb = (size_t)tx + 1 < L.ntx ? (size_t)tx + 1 : L.ntx - 1;
    int bad = 0;
    for (size_t j = ja; j <= jb; j++) { /* a tile's columns and one more either side */
        if (ty > 0) /* the upper side of boundary ty */
            bad |= piece_bad(&L, seams, hash, 2 * ((size_t)ty - 1) * L.ntx + j);
        if ((size_t)ty + 1 < L.nty) /* the lower side of boundary ty + 1 */
            bad |= piece_bad(&L, seams, hash, (2 * (size_t)ty + 1) * L.ntx + j);
    }
    size_t cols = L.rows * L.ntx;
    if (tx > 0) /* the left side of boundary tx */
        bad |= piece_bad(&L, seams, hash, cols + 2 * ((size_t)tx - 1) * L.nty + (size_t)ty);
    if ((size_t)tx + 1 < L.ntx) /* the right side of boundary tx + 1 */
        bad |= piece_bad(&L, seams, hash, cols + (2 * (size_t)tx + 1) * L.nty + (size_t)ty);
    return bad ? -1 : 0;
}
