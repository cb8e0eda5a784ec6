/* Helpers shared by project.c and report.c (not part of the API). */
#ifndef RND_PROJECT_PRIV_H
#define RND_PROJECT_PRIV_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

/* snprintf that truncates quietly (paths longer than PATH_MAX fail later,
 * when they are opened); returns what vsnprintf does. */
__attribute__((format(printf, 3, 4))) static inline int sfmt(char *buf, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = vsnprintf(buf, n, fmt, ap);
    va_end(ap);
    return r;
}

/* 1 if path is a regular file. */
int rnd_prj_exists(const char *path);
/* The whole file, NUL-terminated, malloc'ed; NULL if unreadable. */
char *rnd_prj_read_file(const char *path, size_t *len);
/* s with & < > " ' escaped for XML/HTML text and attributes. */
void rnd_prj_xml_escape(FILE *f, const char *s);
/* The first <tag ...>...</tag> element of xml (nesting counted), malloc'ed. */
char *rnd_prj_xml_element(const char *xml, const char *tag);
/* Relative path from directory `from` to `to`, both absolute and canonical
 * (realpath); "." when they are the same. */
void rnd_prj_relpath(const char *from, const char *to, char *out, size_t n);

#endif
