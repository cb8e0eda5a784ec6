/*
 * tempfile.h — the prm module's temporary files: the paged search's tiles
 * (grid_pages.c), the lazy terrain's spill (terrain_lazy.c) and the tiled
 * bridging's flood (tiled_bridge.c). Each is made and unlinked at once, so
 * nothing is left behind whatever happens after, and read and written whole
 * at offsets.
 */
#ifndef TRV_PRM_TEMPFILE_H
#define TRV_PRM_TEMPFILE_H

#include <stddef.h>
#include <sys/types.h>

/* Where the temporary files go: dir when given (not NULL nor ""), else
 * $TMPDIR when set, else /tmp. */
const char *prm_temp_dir(const char *dir);
/* A file STEM-XXXXXX in prm_temp_dir(dir), unlinked at once; its
 * descriptor, or -1 (errno says why). */
int prm_temp_fd(const char *dir, const char *stem);
/* The whole of b written (out) or read (!out) at off, retried on EINTR and
 * short counts; 1 when all n bytes moved. */
int prm_fd_move(int fd, void *b, size_t n, off_t off, int out);

#endif
