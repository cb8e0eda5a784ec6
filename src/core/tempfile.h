/*
 * tempfile.h — temporary files: prm's paged search's tiles (grid_pages.c),
 * lazy terrain's spill (terrain_lazy.c) and tiled bridging's flood
 * (tiled_bridge.c); kriging's out-of-core simulation torus (sim_fft.c)
 * and the realisations' kept tiles (sim.c).
 * Each is made and unlinked at once, so nothing is left behind whatever
 * happens after, and read and written whole at offsets.
 */
#ifndef TRV_TEMPFILE_H
#define TRV_TEMPFILE_H

#include <stddef.h>
#include <sys/types.h>

/* Where the temporary files go: dir when given (not NULL nor ""), else
 * $TMPDIR when set, else /tmp. */
const char *trv_temp_dir(const char *dir);
/* A file STEM-XXXXXX in trv_temp_dir(dir), unlinked at once; its
 * descriptor, or -1 (errno says why). */
int trv_temp_fd(const char *dir, const char *stem);
/* The whole of b written (out) or read (!out) at off, retried on EINTR and
 * short counts; 1 when all n bytes moved. */
int trv_fd_move(int fd, void *b, size_t n, off_t off, int out);

#endif
