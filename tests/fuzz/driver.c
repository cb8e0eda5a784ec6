/* The corpus replay (make test): a main() that feeds each file named on
 * the command line, or each file of each directory named, to the
 * harness's LLVMFuzzerTestOneInput once, as libFuzzer would (no fuzzing).
 * Prints "<n> inputs"; exits 1 when a file cannot be read or none was
 * given. A crash, or a sanitizer's report when built with SAN=1, fails. */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot read '%s'\n", path);
        return 1;
    }
    size_t cap = 4096, n = 0, got;
    uint8_t *buf = malloc(cap);
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0)
        if ((n += got) == cap && !(buf = realloc(buf, cap *= 2)))
            break;
    fclose(f);
    if (!buf) {
        fprintf(stderr, "out of memory reading '%s'\n", path);
        return 1;
    }
    LLVMFuzzerTestOneInput(buf, n);
    free(buf);
    return 0;
}

static int cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Every regular file of dir, in name order; *count += how many. */
static int run_dir(const char *dir, long *count)
{
    struct dirent **list;
    int n = scandir(dir, &list, NULL, NULL), bad = 0;
    if (n < 0) {
        fprintf(stderr, "cannot list '%s'\n", dir);
        return 1;
    }
    char **names = malloc((n ? n : 1) * sizeof *names);
    int m = 0;
    for (int i = 0; i < n; i++) {
        if (names && list[i]->d_name[0] != '.' && asprintf(&names[m], "%s/%s", dir, list[i]->d_name) >= 0)
            m++;
        free(list[i]);
    }
    free(list);
    if (!names)
        return 1;
    qsort(names, m, sizeof *names, cmp);
    for (int i = 0; i < m; i++) {
        struct stat s;
        if (!stat(names[i], &s) && S_ISREG(s.st_mode)) {
            bad |= run_file(names[i]);
            ++*count;
        }
        free(names[i]);
    }
    free(names);
    return bad;
}

int main(int argc, char **argv)
{
    long count = 0;
    int bad = 0;
    for (int i = 1; i < argc; i++) {
        struct stat s;
        if (!stat(argv[i], &s) && S_ISDIR(s.st_mode)) {
            bad |= run_dir(argv[i], &count);
        } else {
            bad |= run_file(argv[i]);
            count++;
        }
    }
    printf("%ld inputs\n", count);
    return bad || count == 0;
}
