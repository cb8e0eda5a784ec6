/* A text file in row order from tiles (rowtext.h). */
#include "rowtext.h"
#include "tempfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { COPY = 65536 };

struct trv_rowtext {
    FILE *out, *scratch;    /* scratch NULL: one tile across, straight out */
    const char *path;
    int ntx, th;
    off_t *off;             /* tile tx's row r starts at off[tx (th + 1) + r]; r = rows: its end */
    char *copy;
};

trv_status trv_rowtext_open(trv_ctx *ctx, FILE *out, const char *path, int ntx, int th, trv_rowtext **rt)
{
    trv_rowtext *t = *rt = calloc(1, sizeof *t);
    if (!t)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    *t = (trv_rowtext){.out = out, .path = path, .ntx = ntx, .th = th};
    if (ntx <= 1)
        return TRV_OK;
    int fd = trv_temp_fd(NULL, "trv-points");
    if (fd < 0 || !(t->scratch = fdopen(fd, "w+"))) {
        int err = errno;
        if (fd >= 0)
            close(fd);
        return trv_error(ctx, TRV_ERR_IO, "cannot make a scratch file for '%s' in '%s': %s", path, trv_temp_dir(NULL),
                         strerror(err));
    }
    if (!(t->off = malloc((size_t)ntx * (th + 1) * sizeof *t->off)) || !(t->copy = malloc(COPY)))
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    return TRV_OK;
}

FILE *trv_rowtext_row(trv_rowtext *rt, int tx, int r)
{
    if (!rt->scratch)
        return rt->out;
    rt->off[(size_t)tx * (rt->th + 1) + r] = ftello(rt->scratch);
    return rt->scratch;
}

/* The row of tiles' rows 0 .. rows - 1 copied out in row order, each
 * row's tiles' pieces in column order; the scratch file then reused. */
static trv_status flush_rows(trv_ctx *ctx, trv_rowtext *rt, int rows)
{
    if (fflush(rt->scratch) != 0 || ferror(rt->scratch))
        return trv_error(ctx, TRV_ERR_IO, "cannot write the scratch file of '%s' in '%s': %s", rt->path,
                         trv_temp_dir(NULL), strerror(errno));
    for (int r = 0; r < rows; r++)
        for (int tx = 0; tx < rt->ntx; tx++) {
            const off_t *o = rt->off + (size_t)tx * (rt->th + 1) + r;
            for (off_t at = o[0]; at < o[1];) {
                size_t n = o[1] - at < COPY ? (size_t)(o[1] - at) : COPY;
                errno = 0;
                if (!trv_fd_move(fileno(rt->scratch), rt->copy, n, at, 0))
                    return trv_error(ctx, TRV_ERR_IO, "cannot read the scratch file of '%s': %s", rt->path,
                                     strerror(errno ? errno : EIO));
                fwrite(rt->copy, 1, n, rt->out);
                at += (off_t)n;
            }
        }
    rewind(rt->scratch);
    return TRV_OK;
}

trv_status trv_rowtext_tile_end(trv_ctx *ctx, trv_rowtext *rt, int tx, int rows)
{
    if (!rt->scratch)
        return TRV_OK;
    rt->off[(size_t)tx * (rt->th + 1) + rows] = ftello(rt->scratch);
    return tx == rt->ntx - 1 ? flush_rows(ctx, rt, rows) : TRV_OK;
}

void trv_rowtext_close(trv_rowtext *rt)
{
    if (!rt)
        return;
    if (rt->scratch)
        fclose(rt->scratch);
    free(rt->off);
    free(rt->copy);
    free(rt);
}
