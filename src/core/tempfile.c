/* Temporary files made and unlinked at once (tempfile.h). */
#define _GNU_SOURCE
#include "tempfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *trv_temp_dir(const char *dir)
{
    const char *env = getenv("TMPDIR");
    return dir && *dir ? dir : env && *env ? env : "/tmp";
}

int trv_temp_fd(const char *dir, const char *stem)
{
    const char *d = trv_temp_dir(dir);
    size_t n = strlen(d) + strlen(stem) + 9;
    char *path = malloc(n);
    if (!path) {
        errno = ENOMEM;
        return -1;
    }
    snprintf(path, n, "%s/%s-XXXXXX", d, stem);
    int fd = mkstemp(path), e = errno;
    if (fd >= 0)
        unlink(path);
    free(path);
    errno = e;
    return fd;
}

int trv_fd_move(int fd, void *b, size_t n, off_t off, int out)
{
    unsigned char *p = b;
    while (n > 0) {
        ssize_t k = out ? pwrite(fd, p, n, off) : pread(fd, p, n, off);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return 0;
        p += k, n -= (size_t)k, off += k;
    }
    return 1;
}
