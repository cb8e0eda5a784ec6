/* Whole files, XML text and relative paths (core/trv.h). */
#include "trv.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

char *trv_file_read(trv_ctx *ctx, const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        trv_error(ctx, TRV_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n - 1, f); /* room kept for the NUL */
        if (n + 1 < cap)
            break;
        char *b = realloc(buf, cap * 2);
        if (!b) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = b;
        cap *= 2;
    }
    if (!buf)
        trv_error(ctx, TRV_ERR_NOMEM, "out of memory reading '%s'", path);
    else if (ferror(f)) {
        trv_error(ctx, TRV_ERR_IO, "cannot read '%s': %s", path, strerror(errno));
        free(buf);
        buf = NULL;
    } else {
        buf[n] = '\0';
        if (len)
            *len = n;
    }
    fclose(f);
    return buf;
}

int trv_file_exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

char *trv_file_slurp(const char *path, size_t *len)
{
    /* the callers word their own messages (with errno) */
    trv_ctx *quiet = trv_ctx_new();
    char *text = quiet ? trv_file_read(quiet, path, len) : NULL;
    int err = errno;
    trv_ctx_free(quiet);
    errno = err;
    return text;
}

void trv_xml_escape(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        default: fputc(*s, f);
        }
    }
}

/* Relative path from directory `from` to `to` (both absolute, canonical,
 * as realpath gives them). */
void trv_relpath(const char *from, const char *to, char *out, size_t n)
{
    size_t i = 0, common = 0;
    while (from[i] && from[i] == to[i])
        i++;
    if ((!from[i] && (!to[i] || to[i] == '/')) || (!to[i] && from[i] == '/'))
        common = i; /* one is a prefix of the other at a component boundary */
    else
        for (common = i; common > 0 && from[common] != '/'; common--)
            ;
    size_t len = 0;
    out[0] = '\0';
    for (const char *p = from + common; *p; p++)
        if (*p == '/' && p[1] && len < n)
            len += (size_t)trv_sfmt(out + len, n - len, "%s..", len ? "/" : "");
    const char *rest = to + common;
    while (*rest == '/')
        rest++;
    if (*rest && len < n)
        len += (size_t)trv_sfmt(out + len, n - len, "%s%s", len ? "/" : "", rest);
    if (!len)
        trv_sfmt(out, n, ".");
}


int trv_sfmt(char *buf, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = vsnprintf(buf, n, fmt, ap);
    va_end(ap);
    return r;
}
