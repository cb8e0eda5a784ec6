/* Atomic output sets, output metadata and path helpers. */
#define _XOPEN_SOURCE 700 /* nftw */
#include "trv.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Files GDAL and SQLite may create beside a dataset. */
static const char *const SIDECARS[] = {".aux.xml", "-journal", "-wal", "-shm"};
enum { NSIDECARS = sizeof SIDECARS / sizeof SIDECARS[0] };

typedef struct outfile {
    char *final, *tmp;
    int dir;            /* a directory written whole (trv_outset_add_dir) */
    const char *const *replaceable; /* its names that may be replaced */
} outfile;

struct trv_outset {
    outfile *f;
    size_t n, cap;
    char **dirs;        /* directories created, parents first */
    size_t ndirs;
    int committed;
};

trv_outset *trv_outset_new(void) { return calloc(1, sizeof(trv_outset)); }

static void remove_with_sidecars(const char *path)
{
    char buf[PATH_MAX + 16];
    unlink(path);
    for (int i = 0; i < NSIDECARS; i++) {
        snprintf(buf, sizeof buf, "%s%s", path, SIDECARS[i]);
        unlink(buf);
    }
}

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)ftw;
    return flag == FTW_DP ? rmdir(path) : unlink(path);
}

/* Remove the directory tree at path (a directory output's own tree: never followed through links). */
static void remove_tree(const char *path)
{
    nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

void trv_outset_free(trv_outset *set)
{
    if (!set)
        return;
    for (size_t i = 0; i < set->n; i++) {
        if (!set->committed && set->f[i].dir) /* the temporary tree is the set's own */
            remove_tree(set->f[i].tmp);
        else if (!set->committed)
            remove_with_sidecars(set->f[i].tmp);
        free(set->f[i].final);
        free(set->f[i].tmp);
    }
    for (size_t i = set->ndirs; i-- > 0;) {
        if (!set->committed)
            rmdir(set->dirs[i]); /* only succeeds when empty: never removes user files */
        free(set->dirs[i]);
    }
    free(set->dirs);
    free(set->f);
    free(set);
}

trv_status trv_outset_mkdir(trv_ctx *ctx, trv_outset *set, const char *dir)
{
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path)
        return trv_error(ctx, TRV_ERR_USAGE, "path too long: '%s'", dir);
    size_t len = strlen(path);
    while (len > 1 && path[len - 1] == '/')
        path[--len] = '\0';
    for (char *p = path + 1;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char saved = *p;
        *p = '\0';
        struct stat sb;
        if (stat(path, &sb) == 0) {
            if (!S_ISDIR(sb.st_mode))
                return trv_error(ctx, TRV_ERR_IO, "cannot create directory '%s': '%s' is not a directory", dir,
                                 path);
        } else if (mkdir(path, 0777) == 0) {
            char **d = realloc(set->dirs, (set->ndirs + 1) * sizeof *d);
            if (!d)
                return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
            set->dirs = d;
            if (!(d[set->ndirs] = strdup(path)))
                return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
            set->ndirs++;
        } else {
            return trv_error(ctx, TRV_ERR_IO, "cannot create directory '%s': %s", path, strerror(errno));
        }
        if (saved == '\0')
            break;
        *p = saved;
    }
    return TRV_OK;
}

const char *trv_outset_add(trv_outset *set, const char *final_path)
{
    if (set->n == set->cap) {
        size_t cap = set->cap ? 2 * set->cap : 8;
        outfile *f = realloc(set->f, cap * sizeof *f);
        if (!f)
            return NULL;
        set->f = f;
        set->cap = cap;
    }
    const char *slash = strrchr(final_path, '/');
    const char *base = slash ? slash + 1 : final_path;
    const char *dot = strrchr(base, '.');
    if (!dot || dot == base)
        dot = base + strlen(base);
    size_t n = strlen(final_path) + 48;
    char *tmp = malloc(n);
    char *fin = strdup(final_path);
    if (!tmp || !fin) {
        free(tmp);
        free(fin);
        return NULL;
    }
    /* keep the extension: some GDAL drivers (GeoPackage) insist on it */
    snprintf(tmp, n, "%.*s.%.*s.tmp%ld%s", (int)(base - final_path), final_path, (int)(dot - base), base,
             (long)getpid(), dot);
    set->f[set->n++] = (outfile){fin, tmp, 0, NULL};
    return tmp;
}

const char *trv_outset_add_dir(trv_outset *set, const char *final_dir, const char *const *replaceable)
{
    const char *tmp = trv_outset_add(set, final_dir);
    if (!tmp)
        return NULL;
    if (mkdir(tmp, 0777) != 0) {
        set->n--;
        free(set->f[set->n].final);
        free(set->f[set->n].tmp);
        return NULL;
    }
    set->f[set->n - 1].dir = 1;
    set->f[set->n - 1].replaceable = replaceable;
    return tmp;
}

/* 1 when path is a directory holding nothing but entries named in names
 * (NULL-terminated; NULL: nothing at all); *empty says it holds nothing. */
static int only_names(const char *path, const char *const *names, int *empty)
{
    DIR *d = opendir(path);
    if (!d)
        return 0;
    int ok = 1;
    *empty = 1;
    for (struct dirent *e; ok && (e = readdir(d));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        *empty = 0;
        ok = 0;
        for (size_t k = 0; names && names[k] && !ok; k++)
            ok = strcmp(e->d_name, names[k]) == 0;
    }
    closedir(d);
    return ok;
}

trv_status trv_outset_dir_free(trv_ctx *ctx, const char *final_dir, const char *const *replaceable)
{
    struct stat sb;
    int empty;
    if (lstat(final_dir, &sb) != 0 || (S_ISDIR(sb.st_mode) && only_names(final_dir, replaceable, &empty)))
        return TRV_OK;
    return trv_error(ctx, TRV_ERR_IO, "cannot write '%s': it exists and holds other files (a directory output "
                     "replaces only an empty directory or an earlier one of its kind)", final_dir);
}

/* Rename the directory output f into place: an earlier one there renamed
 * aside first, and removed once the new one is in. */
static trv_status rename_dir(trv_ctx *ctx, const outfile *f)
{
    int empty = 1;
    struct stat sb;
    if (lstat(f->final, &sb) == 0)
        only_names(f->final, f->replaceable, &empty);
    char old[PATH_MAX + 32];
    snprintf(old, sizeof old, "%s.old%ld", f->tmp, (long)getpid());
    if (!empty && rename(f->final, old) != 0)
        return trv_error(ctx, TRV_ERR_IO, "cannot move '%s' aside: %s", f->final, strerror(errno));
    if (rename(f->tmp, f->final) != 0) {
        int err = errno;
        if (!empty)
            rename(old, f->final);
        return trv_error(ctx, TRV_ERR_IO, "cannot rename '%s' to '%s': %s", f->tmp, f->final, strerror(err));
    }
    if (!empty)
        remove_tree(old);
    return TRV_OK;
}

/* ---- file identity ---------------------------------------------------- */

/* Device and inode when the file exists; the resolved path always
 * (realpath of the directory + the name; the path as given when the
 * directory does not resolve). */
typedef struct file_id {
    int exists;
    dev_t dev;
    ino_t ino;
    char path[PATH_MAX + NAME_MAX + 2];
} file_id;

static void file_id_of(const char *p, file_id *id)
{
    struct stat sb;
    char dir[PATH_MAX], rdir[PATH_MAX];
    id->exists = stat(p, &sb) == 0;
    id->dev = id->exists ? sb.st_dev : 0;
    id->ino = id->exists ? sb.st_ino : 0;
    const char *slash = strrchr(p, '/');
    const char *base = slash ? slash + 1 : p;
    int dlen = !slash ? 1 : slash == p ? 1 : (int)(slash - p);
    snprintf(dir, sizeof dir, "%.*s", dlen, slash ? p : ".");
    if (realpath(dir, rdir))
        snprintf(id->path, sizeof id->path, "%s/%s", strcmp(rdir, "/") ? rdir : "", base);
    else
        snprintf(id->path, sizeof id->path, "%s", p);
}

static int same_file(const file_id *a, const file_id *b)
{
    if (a->exists && b->exists)
        return a->dev == b->dev && a->ino == b->ino;
    return !a->exists && !b->exists && strcmp(a->path, b->path) == 0;
}

/* The first of paths[0..n) (NULL entries skipped) that is the same file as
 * an earlier one; NULL if none. ids: n slots. */
static const char *first_twice(const char *const *paths, size_t n, file_id *ids)
{
    for (size_t i = 0; i < n; i++) {
        if (!paths[i])
            continue;
        file_id_of(paths[i], &ids[i]);
        for (size_t k = 0; k < i; k++)
            if (paths[k] && same_file(&ids[k], &ids[i]))
                return paths[i];
    }
    return NULL;
}

/* d (a path) becomes its folder: "." for a bare name, "/" for one at the
 * root. Returns whether there is a folder above that to climb to. */
static int to_folder(char *d, size_t size)
{
    char *slash = strrchr(d, '/');
    if (!slash)
        snprintf(d, size, ".");
    else if (slash == d)
        d[1] = '\0'; /* "/" */
    else
        slash[0] = '\0';
    return slash && slash != d;
}

/* The nearest existing directory on the way up from out's directory must
 * be a directory this process may write into (access: a read-only mount
 * says EROFS, a directory without w permission EACCES). */
static trv_status writable_destination(trv_ctx *ctx, const char *out)
{
    char d[PATH_MAX];
    if (snprintf(d, sizeof d, "%s", out) >= (int)sizeof d)
        return trv_error(ctx, TRV_ERR_USAGE, "output path too long: '%s'", out);
    for (;;) {
        int above = to_folder(d, sizeof d);
        struct stat sb;
        if (stat(d, &sb) == 0) {
            if (!S_ISDIR(sb.st_mode))
                return trv_error(ctx, TRV_ERR_IO, "cannot write '%s': '%s' is not a directory", out, d);
            if (access(d, W_OK | X_OK) != 0)
                return trv_error(ctx, TRV_ERR_IO, "cannot write '%s': '%s' is not writable (%s)", out, d,
                                 strerror(errno));
            return TRV_OK;
        }
        if (!above)
            return TRV_OK; /* nothing left to climb: the writer says what is wrong */
    }
}

trv_status trv_outputs_check(trv_ctx *ctx, const char *const *outputs, size_t n, const char *const *inputs,
                             size_t m)
{
    file_id *ids = malloc((n + 1) * sizeof *ids), in;
    if (!ids)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    const char *twice = first_twice(outputs, n, ids);
    trv_status st = twice ? trv_error(ctx, TRV_ERR_USAGE, "output '%s' is given twice", twice) : TRV_OK;
    for (size_t k = 0; k < m && !st; k++) {
        if (!inputs[k])
            continue;
        file_id_of(inputs[k], &in);
        for (size_t i = 0; i < n && !st; i++)
            if (outputs[i] && same_file(&ids[i], &in))
                st = trv_error(ctx, TRV_ERR_USAGE, "output '%s' is also an input", outputs[i]);
    }
    for (size_t i = 0; i < n && !st; i++)
        if (outputs[i])
            st = writable_destination(ctx, outputs[i]);
    free(ids);
    return st;
}

trv_status trv_output_folders_check(trv_ctx *ctx, const char *const *files, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!files[i])
            continue;
        char d[PATH_MAX];
        if (snprintf(d, sizeof d, "%s", files[i]) >= (int)sizeof d)
            return trv_error(ctx, TRV_ERR_USAGE, "output path too long: '%s'", files[i]);
        to_folder(d, sizeof d);
        struct stat sb;
        if (stat(d, &sb) != 0 && errno == ENOENT)
            return trv_error(ctx, TRV_ERR_IO, "cannot write '%s': the folder '%s' does not exist", files[i], d);
    }
    return TRV_OK;
}

/* ---- stale temporaries -------------------------------------------------- */

/* 1 when name is ".STEM.tmp<pid>EXT" or that plus a sidecar suffix, with
 * pid a process that no longer exists (and not this one). */
static int stale_temporary(const char *name, const char *stem, size_t stem_len, const char *ext)
{
    if (name[0] != '.' || strncmp(name + 1, stem, stem_len) || strncmp(name + 1 + stem_len, ".tmp", 4))
        return 0;
    const char *digits = name + 1 + stem_len + 4;
    char *rest;
    errno = 0;
    long pid = strtol(digits, &rest, 10);
    if (rest == digits || *digits < '0' || *digits > '9' || errno || pid <= 0 || pid > INT_MAX ||
        (pid_t)pid == getpid())
        return 0;
    size_t ext_len = strlen(ext);
    if (strncmp(rest, ext, ext_len))
        return 0;
    rest += ext_len;
    int known = *rest == '\0';
    for (int i = 0; i < NSIDECARS && !known; i++)
        known = strcmp(rest, SIDECARS[i]) == 0;
    return known && kill((pid_t)pid, 0) == -1 && errno == ESRCH;
}

/* Remove the stale temporaries of final_path's name from its directory. */
static void clean_stale(const char *final_path)
{
    const char *slash = strrchr(final_path, '/');
    const char *base = slash ? slash + 1 : final_path;
    const char *dot = strrchr(base, '.');
    if (!dot || dot == base)
        dot = base + strlen(base);
    char dir[PATH_MAX], victim[PATH_MAX + NAME_MAX + 2];
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - final_path) + 1 : 1, slash ? final_path : ".");
    DIR *d = opendir(dir);
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d));) {
        if (stale_temporary(e->d_name, base, (size_t)(dot - base), dot)) {
            snprintf(victim, sizeof victim, "%s%s%s", dir, slash ? "" : "/", e->d_name);
            unlink(victim);
        }
    }
    closedir(d);
}

/* The first final path registered twice (the same file); NULL if none. */
static const char *final_twice(const trv_outset *set, file_id *ids)
{
    const char **paths = malloc((set->n + 1) * sizeof *paths);
    if (!paths)
        return NULL;
    for (size_t i = 0; i < set->n; i++)
        paths[i] = set->f[i].final;
    const char *twice = first_twice(paths, set->n, ids);
    free(paths);
    return twice;
}

trv_status trv_outset_commit(trv_ctx *ctx, trv_outset *set)
{
    char a[PATH_MAX + 16], b[PATH_MAX + 16];
    file_id *ids = malloc((set->n + 1) * sizeof *ids);
    if (!ids)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    const char *twice = final_twice(set, ids);
    free(ids);
    if (twice)
        return trv_error(ctx, TRV_ERR_USAGE, "output '%s' is given twice", twice);
    for (size_t i = 0; i < set->n; i++) {
        const outfile *f = &set->f[i];
        struct stat sb;
        if (access(f->tmp, F_OK) != 0)
            return trv_error(ctx, TRV_ERR_INTERNAL, "output '%s' was never written", f->final);
        /* the renames that would fail midway: found before any is made */
        if (!f->dir && stat(f->final, &sb) == 0 && S_ISDIR(sb.st_mode))
            return trv_error(ctx, TRV_ERR_IO, "cannot write '%s': a directory is in the way", f->final);
        trv_status st = f->dir ? trv_outset_dir_free(ctx, f->final, f->replaceable) : TRV_OK;
        if (st)
            return st;
    }
    for (size_t i = 0; i < set->n; i++) {
        const outfile *f = &set->f[i];
        if (f->dir) {
            trv_status st = rename_dir(ctx, f);
            if (st)
                return st;
            continue;
        }
        if (rename(f->tmp, f->final) != 0)
            return trv_error(ctx, TRV_ERR_IO, "cannot rename '%s' to '%s': %s", f->tmp, f->final, strerror(errno));
        snprintf(a, sizeof a, "%s.aux.xml", f->tmp);
        snprintf(b, sizeof b, "%s.aux.xml", f->final);
        if (access(a, F_OK) == 0) {
            if (rename(a, b) != 0)
                return trv_error(ctx, TRV_ERR_IO, "cannot rename '%s' to '%s': %s", a, b, strerror(errno));
        } else {
            unlink(b); /* a stale sidecar would describe the old file */
        }
    }
    set->committed = 1;
    for (size_t i = 0; i < set->n; i++)
        if (!set->f[i].dir)
            clean_stale(set->f[i].final);
    return TRV_OK;
}

static int needs_quoting(const char *s)
{
    if (!*s)
        return 1;
    for (; *s; s++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=,:+@%", *s))
            return 1;
    return 0;
}

void trv_meta_init(trv_meta *meta, const char *tool, int argc, char **argv)
{
    memset(meta, 0, sizeof *meta);
    snprintf(meta->tool, sizeof meta->tool, "%s", tool);
    size_t len = (size_t)snprintf(meta->args, sizeof meta->args, "%s", tool);
    for (int i = 1; i < argc && len < sizeof meta->args; i++) {
        const char *a = argv[i];
        if (needs_quoting(a)) {
            len += (size_t)snprintf(meta->args + len, sizeof meta->args - len, " '");
            for (; *a && len < sizeof meta->args; a++)
                len += (size_t)snprintf(meta->args + len, sizeof meta->args - len, *a == '\'' ? "'\\''" : "%c", *a);
            if (len < sizeof meta->args)
                len += (size_t)snprintf(meta->args + len, sizeof meta->args - len, "'");
        } else {
            len += (size_t)snprintf(meta->args + len, sizeof meta->args - len, " %s", a);
        }
    }
}

void trv_meta_add(trv_meta *meta, const char *key, const char *value)
{
    if (meta->nextra >= 8)
        return;
    snprintf(meta->extra_key[meta->nextra], sizeof meta->extra_key[0], "%s", key);
    snprintf(meta->extra_value[meta->nextra], sizeof meta->extra_value[0], "%s", value);
    meta->nextra++;
}

char *trv_path_folder(const char *path)
{
    size_t n = strlen(path) + 2; /* "." for a bare name may be longer than it */
    char *d = malloc(n);
    if (d) {
        memcpy(d, path, n - 1);
        to_folder(d, n);
    }
    return d;
}

char *trv_path_join(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s%s%s", dir, (*dir && dir[strlen(dir) - 1] != '/') ? "/" : "", name);
    return p;
}

static char *readable(const char *dir, const char *rel)
{
    char *p = trv_path_join(dir, rel);
    if (p && access(p, R_OK) == 0)
        return p;
    free(p);
    return NULL;
}

char *trv_data_path(trv_ctx *ctx, const char *rel)
{
    const char *env = getenv("TRV_DATADIR");
    char *p;
    if (env && *env && (p = readable(env, rel)))
        return p;
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            char dir[PATH_MAX + 32];
            snprintf(dir, sizeof dir, "%s/../data", exe);
            if ((p = readable(dir, rel)))
                return p;
            snprintf(dir, sizeof dir, "%s/../share/traverse", exe);
            if ((p = readable(dir, rel)))
                return p;
        }
    }
    trv_error(ctx, TRV_ERR_IO, "cannot find data file '%s' (set TRV_DATADIR to the traverse data directory)", rel);
    return NULL;
}

void trv_outset_explain(trv_ctx *ctx, const trv_outset *set)
{
    if (!set)
        return;
    char msg[2048];
    snprintf(msg, sizeof msg, "%s", trv_errmsg(ctx));
    int changed = 0;
    for (size_t k = 0; k < set->n; k++) {
        const char *tmp = set->f[k].tmp, *fin = set->f[k].final;
        size_t lt = strlen(tmp), lf = strlen(fin);
        for (char *p = strstr(msg, tmp); p; p = strstr(p + lf, tmp)) {
            if (strlen(msg) - lt + lf >= sizeof msg)
                break;
            memmove(p + lf, p + lt, strlen(p + lt) + 1);
            memcpy(p, fin, lf);
            changed = 1;
        }
    }
    if (changed)
        trv_error(ctx, TRV_OK, "%s", msg);
}
